"""``python -m polars_fair.cli``: the command line, as the ``polars-fair`` script."""

from polars_fair.cli.launch import main

if __name__ == "__main__":
    main()
