"""Rust routes: axum routers (route, nest, merge) and actix-web (macros, scopes, resources)."""

from __future__ import annotations

from routes_pairs import Pair, judge, removed, rules

AXUM = """use axum::{routing::{get, post}, Router};

mod api;

#[tokio::main]
async fn main() {
    let app = Router::new()
        .route("/", get(root))
        .route("/users/:id", get(show).delete(remove))
        .nest("/api", api::routes())
        .layer(TraceLayer::new_for_http());
    axum::serve(listener, app).await.unwrap();
}
"""
API = """use axum::{routing::get, Router};

pub fn routes() -> Router {
    Router::new()
        .route("/items", get(list).post(create))
        .route("/items/{id}", get(item))
}
"""


def test_axum_routes_and_a_router_nested_from_another_module(release_pair: Pair) -> None:
    old = {"src/main.rs": AXUM, "src/api.rs": API}
    report = judge(
        release_pair, old, {"src/api.rs": API.replace("get(list).post(create)", "get(list)")}
    )
    assert removed(report) == ["POST /api/items"]
    assert "GET /api/items/{id}" in report.coverage.understood
    method = judge(
        release_pair, old, {"src/main.rs": AXUM.replace("get(show).delete(remove)", "get(show)")}
    )
    assert removed(method) == ["DELETE /users/:id"]


def test_axum_path_syntax_changes_keep_the_route(release_pair: Pair) -> None:
    old = {"src/main.rs": AXUM, "src/api.rs": API}
    new = {"src/main.rs": AXUM.replace("/users/:id", "/users/{user_id}")}
    assert rules(judge(release_pair, old, new)) == []


ACTIX = """use actix_web::{get, post, web, App, HttpServer};

#[get("/hello/{name}")]
async fn greet(name: web::Path<String>) -> String { String::new() }

#[post("/echo")]
async fn echo(body: String) -> String { body }

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    HttpServer::new(move || {
        let app = App::new().wrap(Logger::default());
        app.service(web::scope("/v1").service(greet).service(echo))
            .route("/health", web::get().to(health))
            .configure(|cfg| {
                if enabled {
                    routes::config(cfg);
                }
            })
    })
    .bind(("127.0.0.1", 8080))?
    .run()
    .await
}
"""


ROUTES = """use actix_web::web;

pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/app").route(web::get().to(index)).route(web::head().to(index)));
}
"""
OTHER = "pub fn config(cfg: &mut web::ServiceConfig) {}\n"


def test_actix_macros_scopes_resources_and_configure(release_pair: Pair) -> None:
    new = ACTIX.replace(".service(greet).service(echo)", ".service(greet)")
    old = {"src/main.rs": ACTIX, "src/routes.rs": ROUTES, "src/other.rs": OTHER}
    report = judge(release_pair, old, {"src/main.rs": new})
    assert removed(report) == ["POST /v1/echo"]
    assert {"GET /v1/hello/{name}", "GET /health", "GET /app", "HEAD /app"} <= set(
        report.coverage.understood
    )


def test_a_computed_path_in_a_touched_rust_file_is_unknown(release_pair: Pair) -> None:
    new = AXUM.replace('.route("/", get(root))', '.route(&format!("/{}", base), get(root))')
    report = judge(release_pair, {"src/main.rs": AXUM, "src/api.rs": API}, {"src/main.rs": new})
    assert rules(report) == ["route-registration-dynamic", "route-removed"]
