"""The line `jembatan warehouse load` prints per plant (docs/warehouse.md): the records of each
collection, and how many of them were new where the plant sent some again."""

from __future__ import annotations

from app.console.warehouse import said
from app.warehouse.plants import Fleet, Plant
from app.warehouse.source import Tally


def test_a_plant_line_tells_new_records_from_those_sent_again() -> None:
    fleet = Fleet(plants=(Plant("north", "https://north.example"),
                          Plant("south", "https://south.example")))
    tally = Tally(records={("north", "transactions"): 1406, ("north", "vehicles"): 3,
                           ("south", "transactions"): 12},
                  repeats={("north", "transactions"): 16},
                  requests={"north": 5, "south": 2})
    assert list(said(fleet, tally)) == [
        "north: transactions 1,406 (1,390 new, 16 again), vehicles 3; 5 requests",
        "south: transactions 12; 2 requests"]


def test_a_caught_up_plant_reads_no_records() -> None:
    fleet = Fleet(plants=(Plant("north", "https://north.example"),))
    assert list(said(fleet, Tally(requests={"north": 3}))) == ["north: no records; 3 requests"]
