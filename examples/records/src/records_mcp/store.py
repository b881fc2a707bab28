"""The records the handlers work on: contacts and credit accounts, in memory."""

from dataclasses import dataclass, field


@dataclass
class Records:
    contacts: dict[str, str] = field(default_factory=dict)
    """email -> contact id"""
    balances: dict[str, int] = field(default_factory=lambda: {"acct-1": 100, "acct-2": 50, "acct-3": 0})


RECORDS = Records()
