"""tablemon synth."""
