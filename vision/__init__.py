"""tablemon vision."""
