"""tablemon bench."""
