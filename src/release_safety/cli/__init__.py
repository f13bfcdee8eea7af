"""The command line: running a command, its table, the click commands, the renderers, the click-free
lint, the rules turned off, and the GitHub Action's entry."""
