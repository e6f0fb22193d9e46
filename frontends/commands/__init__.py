"""The subcommands: ``legato config``, ``doctor``, ``mcp``, ``permissions``, ``trust``, and what
they share (the questions they ask, what they say of MCP servers)."""
