"""Check 5: New project with a new category, with ListProjects and ListCategories as the oracle."""
import agent
import atspi_tree as at
from report import Failure


def check_new_project(window):
    window.select_page("Projects")
    window.press("New project")
    name = window.field("Name", timeout=4)
    window.note_dialog_names()
    at.type_into(name, "Garden")
    category = window.field("Category")
    at.type_into(category, "Home")
    nodes = window.tree()
    dialog = window.dialog(nodes)
    saves = at.buttons(dialog if dialog else nodes, "Save")
    if not saves:
        raise Failure("no Save button in the project dialog")
    at.press(saves[0])

    def made():
        return [p for p in agent.projects() if p["name"] == "Garden"]
    if not at.wait_for(made, 3):
        raise Failure(f"ListProjects has no Garden: {[p['name'] for p in agent.projects()]}")
    project = made()[0]
    if project["category"] != "Home":
        raise Failure(f"Garden's category is {project['category']!r}, not 'Home'")
    if "Home" not in agent.categories():
        raise Failure(f"ListCategories has no Home: {agent.categories()}")
    return "ListProjects: Garden in Home; ListCategories has Home"
