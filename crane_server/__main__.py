import sys

from crane_server.cli import main

sys.exit(main())
