"""`window-check.py seed`: the store the checks start from (projects Writing in Work and
Reading, yesterday's session of Writing); its ids go to DIR/seed.json."""
import json
import os

import agent
from common import local, yesterday


def command_seed(args):
    agent.add_category("Work")
    writing = agent.create_project("Writing", "#2e7d32", "Work")
    agent.create_project("Reading", "#c01c28", "")
    session = agent.add_session(writing, local(yesterday(), 9), "2h", "Drafted the introduction")
    with open(os.path.join(args.output, "seed.json"), "w") as f:
        json.dump({"writing": writing, "session": session, "start": local(yesterday(), 9)}, f)
