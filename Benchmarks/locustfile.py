"""`make bench`, Locust peer: each user registers a caller and a callee with the reference target, then loops
start → join → end (docs/PROTOCOL.md), as fast as the target answers. A completed sequence counts as one call."""
import itertools
import json

from locust import events
from locust.contrib.fasthttp import FastHttpUser
from locust import task

_ids = itertools.count()
CALLS = {"completed": 0, "failed": 0}


def handle(n):
    return {"kind": "phoneNumber", "value": f"+1555{n:07d}", "displayName": f"Locust {n}"}


class CallUser(FastHttpUser):
    def on_start(self):
        self.caller, self.callee = next(_ids), next(_ids)
        for n in (self.caller, self.callee):
            self.client.post("/v1/devices", json={"id": f"locust-{n}", "handle": handle(n),
                                                  "apnsToken": f"{n:064x}"})

    @task
    def call(self):
        with self.client.post("/v1/conversations", json={"caller": f"locust-{self.caller}",
                                                         "handles": [handle(self.callee)], "video": False},
                              catch_response=True) as r:
            if r.status_code != 201:
                r.failure(f"start {r.status_code}")
                CALLS["failed"] += 1
                return
            cid = json.loads(r.content)["id"]
        r = self.client.post(f"/v1/conversations/{cid}/join", json={"device": f"locust-{self.callee}"},
                             name="/v1/conversations/[id]/join")
        r2 = self.client.post(f"/v1/conversations/{cid}/end", json={"device": f"locust-{self.caller}"},
                              name="/v1/conversations/[id]/end")
        if r.status_code == 200 and r2.status_code == 200:
            CALLS["completed"] += 1
        else:
            CALLS["failed"] += 1


@events.quitting.add_listener
def _write_calls(environment, **_):
    path = environment.parsed_options.calls_out if environment.parsed_options else None
    if path:
        with open(path, "w") as f:
            json.dump(CALLS, f)


@events.init_command_line_parser.add_listener
def _options(parser):
    parser.add_argument("--calls-out", default="", help="write completed/failed call counts here")
