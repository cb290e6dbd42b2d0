"""tablemon's shared vocabulary: the contract's table specs, ids, events and file formats.

Every stage imports this package; it imports no stage.
"""

from contract.errors import ContractError
from contract.events import Event, Events, EventType, by_ball, by_type
from contract.match import Foul, Game, Match, Shot, Verdict, read_match, write_match
from contract.tables import TableSpec, load_table, table_names

__all__ = [
    "ContractError",
    "Event",
    "EventType",
    "Events",
    "Foul",
    "Game",
    "Match",
    "Shot",
    "TableSpec",
    "Verdict",
    "by_ball",
    "by_type",
    "load_table",
    "read_match",
    "table_names",
    "write_match",
]
