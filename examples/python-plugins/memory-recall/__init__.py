"""The doc's memory-recall example (pre_llm_call context).

The doc posts with ``httpx``; this copy uses the standard library's
``urllib.request`` so it runs in any Python, and reads the API address from
``MEMORY_API`` (the doc's placeholder address is the default).
"""

import json
import os
import urllib.request

MEMORY_API = os.environ.get("MEMORY_API", "https://your-memory-api.example.com")


def recall(session_id, user_message, is_first_turn, **kwargs):
    try:
        body = json.dumps({"session_id": session_id, "query": user_message}).encode()
        request = urllib.request.Request(
            f"{MEMORY_API}/recall", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=3) as resp:
            memories = json.loads(resp.read()).get("results", [])
        if not memories:
            return None
        text = "Recalled context:\n" + "\n".join(f"- {m['text']}" for m in memories)
        return {"context": text}
    except Exception:
        return None


def register(ctx):
    ctx.register_hook("pre_llm_call", recall)
