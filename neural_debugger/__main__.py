from neural_debugger.cli import main

raise SystemExit(main())
