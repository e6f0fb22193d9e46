"""Images and PDFs made ready for the model: checked, bounded and encoded as the Messages
API's content blocks. Pure functions of bytes, no I/O: the tool executor reads the files (Read,
``@path``), the frontends hand over what a person pasted or a program sent (the clipboard, the
Agent SDK's image blocks), and each gets the same limits and the same clear message for a bad
file."""
