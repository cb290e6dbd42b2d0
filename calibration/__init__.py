"""tablemon calibration."""
