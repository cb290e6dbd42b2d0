"""tablemon adjudicator."""
