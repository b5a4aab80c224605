"""What the command-line tests check of a refused command: one line on stderr, no traceback."""


def one_line_error(capsys, *says: str, prefixed: bool = True) -> str:
    """The one line `v1919` printed on stderr, holding every text of `says` (and starting with
    "error: " when `prefixed`); fails the test otherwise."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and len(lines) == 1, err
    assert not prefixed or lines[0].startswith("error: "), err
    assert all(s in lines[0] for s in says), err
    return lines[0]
