"""Scripts run as fresh subprocesses, some in the peers' own virtual environments.

They are run by file path (never imported by the suite), read their data from a Parquet file and
print one JSON object on stdout.
"""
