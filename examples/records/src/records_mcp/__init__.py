"""Contacts and credit accounts. Import contacts with records_import, list accounts with records_accounts, and move credits with records_transfer."""
