"""tablemon service."""
