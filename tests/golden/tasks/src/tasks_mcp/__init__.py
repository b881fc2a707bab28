"""A task board for assistants. Find tasks with tasks_search, read one with tasks_get, add one with tasks_create and finish one with tasks_close."""
