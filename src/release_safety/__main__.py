from release_safety.cli.main import main

main()
