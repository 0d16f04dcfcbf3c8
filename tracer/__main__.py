from tracer.cli import main

raise SystemExit(main())
