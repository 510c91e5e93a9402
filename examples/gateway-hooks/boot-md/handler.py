"""Act on ~/.hermes/BOOT.md on every gateway startup.

The BOOT.md tutorial's hook with a fixed notice in place of the one-shot
agent: when BOOT.md exists and is not empty, a notice is appended to
~/.hermes/logs/boot-md.log and logged. The tutorial starts a background thread
so that the agent turn does not hold up the gateway; gateway hooks run in the
background here, so the notice is written directly.
"""

import logging
from datetime import datetime
from pathlib import Path

logger = logging.getLogger("hooks.boot-md")

BOOT_FILE = Path.home() / ".hermes" / "BOOT.md"
NOTICE_LOG = Path.home() / ".hermes" / "logs" / "boot-md.log"
NOTICE = "Gateway started: the BOOT.md startup checklist is due."

def _deliver_notice(content: str) -> None:
    """Records the fixed notice (swap in an httpx post to notify a channel)."""
    NOTICE_LOG.parent.mkdir(parents=True, exist_ok=True)
    with open(NOTICE_LOG, "a", encoding="utf-8") as f:
        f.write(f"{datetime.now().isoformat()} {NOTICE} ({len(content)} chars)\n")
    logger.warning("boot-md: %s", NOTICE)

async def handle(event_type: str, context: dict) -> None:
    if not BOOT_FILE.exists():
        return
    content = BOOT_FILE.read_text(encoding="utf-8").strip()
    if not content:
        return
    _deliver_notice(content)
