"""The search tree's index shared by ismcts and guided (v1919_env/core/tree.py): (parent, action) ->
node in an open-addressing hash table, node allocation up to the node arrays' rows and half the table."""
from __future__ import annotations

import numpy as np

from v1919_env.core.tree import ACTION_KEY, TREE_NODES, tree_find, tree_insert, tree_room, tree_start


def fresh(size=16):
    hk, hv, meta = np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(3, np.int64)
    tree_start(hk, meta)
    return hk, hv, meta


def test_insert_allocates_nodes_in_order_and_find_returns_them():
    hk, hv, meta = fresh(64)
    assert meta[TREE_NODES] == 1 and (hk == -1).all()
    made = {}
    for parent, a in [(0, 5), (0, 7), (1, 5), (2, ACTION_KEY - 1), (0, 0)]:
        made[parent, a] = tree_insert(hk, hv, meta, 100, parent, a)
    assert list(made.values()) == [1, 2, 3, 4, 5] and meta[TREE_NODES] == 6
    for (parent, a), c in made.items():
        assert tree_find(hk, hv, parent, a) == c
    assert tree_find(hk, hv, 0, 6) == -1 and tree_find(hk, hv, 3, 5) == -1


def test_the_tree_is_full_at_its_rows_or_half_the_table():
    hk, hv, meta = fresh(16)                         # at most 8 nodes: the table stays half empty
    assert tree_room(hk, meta, 100, 7) and not tree_room(hk, meta, 100, 8)
    got = [tree_insert(hk, hv, meta, 100, 0, a) for a in range(10)]
    assert got == [1, 2, 3, 4, 5, 6, 7, -1, -1, -1] and meta[TREE_NODES] == 8
    hk, hv, meta = fresh(64)                         # at most 4 rows
    got = [tree_insert(hk, hv, meta, 4, 0, a) for a in range(6)]
    assert got == [1, 2, 3, -1, -1, -1]
    assert not tree_room(hk, meta, 4, 1)


def test_start_empties_the_index():
    hk, hv, meta = fresh(16)
    tree_insert(hk, hv, meta, 8, 0, 3)
    tree_start(hk, meta)
    assert meta[TREE_NODES] == 1 and tree_find(hk, hv, 0, 3) == -1
