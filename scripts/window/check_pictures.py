"""Check 9 (`window-check.py shots`): pictures of the Now, Day and Week views and of the Now view
in a focus phase (import, cut to the window), light or dark; the dark ones must be dark."""
import os
import re
import subprocess
import time

import agent
import atspi_tree as at
import check_focus
from app_window import Window
from common import ensure_running, local, today
from report import Failure, Report


def shoot(window, path):
    """The window's part of the screen (import -window root, cut to the window)."""
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(window.pid)],
                         capture_output=True, text=True).stdout.split()
    full = path + ".root.png"
    subprocess.run(["import", "-window", "root", full], check=True)
    geometry = None
    for xid in ids:
        info = subprocess.run(["xwininfo", "-id", xid], capture_output=True, text=True).stdout
        numbers = {k: int(v) for k, v in re.findall(r"(Absolute upper-left [XY]|Width|Height):\s+(-?\d+)", info)}
        if numbers.get("Width", 0) > 100:
            geometry = (numbers["Width"], numbers["Height"], numbers["Absolute upper-left X"],
                        numbers["Absolute upper-left Y"])
            break
    if geometry:
        w, h, x, y = geometry
        subprocess.run(["convert", full, "-crop", f"{w}x{h}+{x}+{y}", "+repage", path], check=True)
    else:
        os.replace(full, path)
    if os.path.exists(full):
        os.remove(full)
    colors = int(subprocess.run(["convert", path, "-format", "%k", "info:"], capture_output=True, text=True).stdout or 0)
    mean = float(subprocess.run(["convert", path, "-colorspace", "gray", "-format", "%[fx:mean]", "info:"],
                                capture_output=True, text=True).stdout or 0)
    return colors, mean


def fill_today():
    """A morning of work for the pictures' Day and Week views (once; only what fits before now)."""
    now = int(time.time())
    midnight = local(today(), 0)
    if any(s["note"] == "Read the review of chapter 2" for s in agent.sessions(midnight, now)):
        return
    if now - midnight < 5 * 3600:
        return
    reading = agent.project_id("Reading")
    writing = agent.project_id("Writing")
    if reading:
        agent.add_session(reading, now - 4 * 3600 - 1800, "1h15m", "Read the review of chapter 2")
    if writing:
        agent.add_session(writing, now - 2 * 3600, "1h30m", "Rewrote the opening of chapter 3")


def command_shots(args):
    window = Window(args.pid)
    report = Report(args.output, args.pid)
    if not at.wait_for(lambda: at.windows(window.tree()), 20, interval=0.1):
        report.not_ok("the window appeared on the accessibility bus (for the pictures)", "shots")
        return report
    fill_today()
    ensure_running()
    time.sleep(1.5)  # a tick or two on the clock
    means = {}
    for page, file in (("Now", "window-now"), ("Day", "window-day"), ("Week", "window-week")):
        def picture(page=page, file=file):
            window.select_page(page)
            time.sleep(0.8)  # the page's transition and its data
            path = os.path.join(args.output, f"{file}{args.suffix}.png")
            colors, mean = shoot(window, path)
            means[page] = mean
            if colors < 16:
                raise Failure(f"{path} has {colors} colours: an empty picture")
            return f"{path}, {colors} colours, mean grey {mean:.2f}"
        report.run(f"shot-{page.lower()}{args.suffix}", f"9. picture of the {page} view{args.suffix}", picture)
    def focus_picture():
        check_focus.start_for_picture()
        try:
            window.select_page("Now")
            time.sleep(0.8)
            path = os.path.join(args.output, f"window-focus{args.suffix}.png")
            colors, _ = shoot(window, path)
            if colors < 16:
                raise Failure(f"{path} has {colors} colours: an empty picture")
            return f"{path}, {colors} colours"
        finally:
            check_focus.stop_after_picture()
    report.run(f"shot-focus{args.suffix}", f"9. picture of the Now view in a focus phase{args.suffix}", focus_picture)
    if args.suffix == "-dark" and means:
        mean = sum(means.values()) / len(means)

        def dark():
            if mean >= 0.5:
                raise Failure(f"the dark pictures are light (mean grey {mean:.2f}): the window did not follow "
                              "the dark colour scheme")
            return f"mean grey {mean:.2f}"
        report.run("dark", "9. with the system's dark colour scheme the window is dark", dark)
    return report
