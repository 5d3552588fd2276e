"""Each write tool's cases (`tests.writes.harness.WriteCase`: the call, the state before and after,
what the log must hold) and the plans they start from: shared by the tool's tests, its undo and
fault tests, and the fault matrix (tests/writes/fault_matrix.py). One module per tool."""
