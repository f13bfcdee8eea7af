"""Settings: the settings file and its discovery, its model, the settings each ref is judged with,
and hollow reasons."""
