"""Python routes: FastAPI routers across modules, Flask blueprints, Django and DRF."""

from __future__ import annotations

from routes_pairs import Pair, judge, removed, rules

MAIN = """from fastapi import FastAPI
from .routers import users
from app.routers.items import router as items_router

app = FastAPI()
app.include_router(users.router, prefix="/users")
app.include_router(items_router)
"""
USERS = """from fastapi import APIRouter

router = APIRouter()


@router.get("/{user_id}")
async def get_user(user_id: int): ...


@router.api_route("/", methods=["GET", "POST"])
def users(): ...
"""
ITEMS = """from fastapi import APIRouter

router = ItemsAPIRouter(prefix="/items")


@router.delete("/{item_id}")
def delete_item(item_id: int): ...
"""
FILES = {"app/main.py": MAIN, "app/routers/users.py": USERS, "app/routers/items.py": ITEMS}


def test_fastapi_routers_included_under_a_prefix_from_other_modules(release_pair: Pair) -> None:
    report = judge(
        release_pair, FILES, {"app/routers/users.py": USERS.replace('"GET", "POST"', '"GET"')}
    )
    assert removed(report) == ["POST /users"]
    items = judge(release_pair, FILES, {"app/routers/items.py": ITEMS.replace("delete", "get")})
    assert removed(items) == ["DELETE /items/{item_id}"]


def test_a_fastapi_route_moved_to_another_router_is_nothing(release_pair: Pair) -> None:
    moved = ITEMS + '\n\n@router.get("/{id}")\ndef get(id: int): ...\n'
    old = {**FILES, "app/routers/items.py": moved}
    new = {
        "app/routers/items.py": ITEMS,
        "app/main.py": MAIN + '\n\n@app.get("/items/{item}")\ndef get(item: int): ...\n',
    }
    assert rules(judge(release_pair, old, new)) == []


FLASK = """from flask import Flask, Blueprint

app = Flask(__name__)
bp = Blueprint("api", __name__, url_prefix="/api")


@bp.route("/x/<int:id>", methods=["GET", "PUT"])
def x(id): ...


@app.route("/")
def index(): ...


app.register_blueprint(bp)
for rule in RULES:
    app.add_url_rule(rule, view_func=view)
"""


def test_flask_blueprints_and_a_rule_from_a_loop(release_pair: Pair) -> None:
    new = FLASK.replace('"GET", "PUT"', '"GET"') + "# touched\n"
    report = judge(release_pair, {"web/app.py": FLASK}, {"web/app.py": new})
    assert removed(report) == ["PUT /api/x/<int:id>"]
    assert "route-registration-dynamic" in rules(report)
    moved = FLASK.replace(
        "app.register_blueprint(bp)", 'app.register_blueprint(bp, url_prefix="/v1")'
    )
    replaced = judge(release_pair, {"web/app.py": FLASK}, {"web/app.py": moved})
    assert removed(replaced) == ["GET /api/x/<int:id>", "PUT /api/x/<int:id>"]
    assert "PUT /v1/x/<int:id>" in replaced.coverage.understood


URLS = """from django.urls import include, path, re_path
from rest_framework.routers import DefaultRouter

router = DefaultRouter()
router.register(r"users", UserViewSet)

urlpatterns = [
    path("api/", include(router.urls)),
    path("polls/", include("polls.urls")),
    re_path(r"^old/(?P<pk>[0-9]+)/$", old),
]
"""
POLLS = """from django.urls import path

urlpatterns = [
    path("<int:question_id>/", views.detail),
    path("<int:question_id>/vote/", views.vote),
]
"""


def test_django_includes_and_drf_routers(release_pair: Pair) -> None:
    old = {"proj/urls.py": URLS, "polls/urls.py": POLLS}
    new = {"polls/urls.py": POLLS.replace('    path("<int:question_id>/vote/", views.vote),\n', "")}
    assert removed(judge(release_pair, old, new)) == ["ANY /polls/<int:question_id>/vote/"]
    drf = judge(release_pair, old, {"proj/urls.py": URLS.replace('r"users"', 'r"members"')})
    assert removed(drf) == ["ANY /api/users", "ANY /api/users/{pk}"]
