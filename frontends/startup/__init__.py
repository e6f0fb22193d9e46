"""What runs before a session: the flags, the checks at launch, the version, the debug log and
the choice of a saved session to resume."""
