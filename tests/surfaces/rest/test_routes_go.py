"""Go routes: net/http 1.22 patterns, chi, gin, echo and gorilla/mux."""

from __future__ import annotations

from routes_pairs import Pair, judge, removed, rules

NET = """package main

import "net/http"

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/websites/{websiteId}", getWebsite)
	mux.HandleFunc("DELETE /api/websites/{websiteId}", deleteWebsite)
	mux.HandleFunc("/healthz", health)
	resp, _ := http.Get("https://example.com/")
	_ = resp
}
"""


def test_net_http_method_patterns(release_pair: Pair) -> None:
    new = NET.replace('\tmux.HandleFunc("DELETE /api/websites/{websiteId}", deleteWebsite)\n', "")
    report = judge(release_pair, {"main.go": NET}, {"main.go": new})
    assert removed(report) == ["DELETE /api/websites/{websiteId}"]
    renamed = NET.replace("{websiteId}", "{id}")
    assert rules(judge(release_pair, {"main.go": NET}, {"main.go": renamed})) == []


CHI = """package api

import "github.com/go-chi/chi/v5"

const itemsPath = "/items"

func Routes() http.Handler {
	r := chi.NewRouter()
	r.Route("/v1", func(r chi.Router) {
		r.Get(itemsPath, list)
		r.Route("/items/{id}", func(r chi.Router) {
			r.Delete("/", remove)
		})
	})
	r.Mount("/admin", adminRouter())
	return r
}
"""
ADMIN = """package api

func adminRouter() http.Handler {
	r := chi.NewRouter()
	r.Get("/users", users)
	return r
}
"""


def test_chi_groups_and_a_router_mounted_from_another_file(release_pair: Pair) -> None:
    old = {"api/routes.go": CHI, "api/admin.go": ADMIN}
    gone = judge(release_pair, old, {"api/admin.go": ADMIN.replace("/users", "/members")})
    assert removed(gone) == ["GET /admin/users"]
    nested = judge(release_pair, old, {"api/routes.go": CHI.replace('r.Delete("/", remove)', "")})
    assert removed(nested) == ["DELETE /v1/items/{id}"]


def test_a_computed_path_in_a_touched_file_is_unknown(release_pair: Pair) -> None:
    dynamic = NET.replace(
        '\tmux.HandleFunc("/healthz", health)\n',
        "\tfor _, p := range paths {\n\t\tmux.HandleFunc(p, h)\n\t}\n",
    )
    report = judge(release_pair, {"main.go": NET}, {"main.go": dynamic})
    assert rules(report) == ["route-registration-dynamic", "route-removed"]


GIN = """package main

func setup() {
	r := gin.Default()
	v1 := r.Group("/v1")
	v1.GET("ping", ping)
	r.Match([]string{"GET", http.MethodHead}, "/health", health)
	v1.POST("", create)
	e := echo.New()
	g := e.Group("/admin")
	g.GET("/x/:id", x)
	m := mux.NewRouter()
	m.HandleFunc("/products/{key}", product).Name("p").Methods("GET", http.MethodPut)
	s := m.PathPrefix("/api").Subrouter()
	s.HandleFunc("/z", z)
}
"""


def test_gin_echo_and_gorilla_groups(release_pair: Pair) -> None:
    new = GIN.replace('"GET", http.MethodPut', '"GET"').replace('\tv1.POST("", create)\n', "")
    report = judge(release_pair, {"main.go": GIN}, {"main.go": new})
    assert removed(report) == ["POST /v1", "PUT /products/{key}"]
    assert {"GET /admin/x/:id", "ANY /api/z", "GET /v1/ping", "HEAD /health"} <= set(
        report.coverage.understood
    )


def test_a_configured_base_path_before_a_literal_is_the_literal(release_pair: Pair) -> None:
    based = NET.replace('"/healthz"', 'basePath + "/healthz"')
    report = judge(release_pair, {"main.go": NET}, {"main.go": based})
    assert report.checked and rules(report) == []
    computed = NET.replace('"/healthz"', "basePath + suffix")
    assert rules(judge(release_pair, {"main.go": NET}, {"main.go": computed})) == [
        "route-registration-dynamic",
        "route-removed",
    ]
