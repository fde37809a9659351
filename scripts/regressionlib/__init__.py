"""The regression harness behind scripts/regression: the test list
(testlist), running one test and checking it (runner), the gold standards
(gold) and the table (report). tests/regression/README.md explains its use."""
