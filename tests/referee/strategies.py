"""Hypothesis strategies for cards and rows."""

from hypothesis import strategies as st

from referee.cards import Criteria


@st.composite
def criteria(draw: st.DrawFn) -> Criteria:
    symbols = draw(st.integers(1, 9))
    return Criteria(draw(st.integers(1, min(5, symbols))), draw(st.integers(1, min(5, symbols))), symbols)


def rows(min_size: int = 1, max_size: int = 10) -> st.SearchStrategy[list[Criteria]]:
    return st.lists(criteria(), min_size=min_size, max_size=max_size)


@st.composite
def clean_rows(draw: st.DrawFn, max_size: int = 7) -> list[Criteria]:
    """Rows in which every card differs from the one before it in all three criteria."""
    row = [draw(criteria())]
    for _ in range(draw(st.integers(0, max_size - 1))):
        prev = row[-1]
        row.append(draw(criteria().filter(lambda c, p=prev: not c.matches(p))))
    return row
