"""Gateway hook for the example home: counts events, denies /reset."""

SEEN = []


def handle(event_type, context):
    SEEN.append(event_type)
    if event_type == "command:reset":
        return {"decision": "deny", "message": f"reset refused after {len(SEEN)} gateway events"}
    return None
