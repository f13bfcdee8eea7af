from release_safety.cli import main

main()
