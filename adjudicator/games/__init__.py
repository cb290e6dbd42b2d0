"""Game modules: importing this package imports every module in it, and each registers
its rules with :func:`adjudicator.base.register`."""

import importlib
import pkgutil

for _m in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_m.name}")
