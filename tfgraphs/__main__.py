from tfgraphs.cli import main
raise SystemExit(main())
