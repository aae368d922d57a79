# The front page: HTML only, public, linking each collection's index page (whose JSON
# rendering is the same route with `.json` or `Accept: application/json`).
class HomeController < ApplicationController
  skip_before_action :authenticate

  COLLECTIONS = { "Boards" => "/api/boards", "Lists" => "/api/lists",
                  "Cards" => "/api/cards", "Tags" => "/api/tags" }.freeze

  def index
    items = COLLECTIONS.map { |label, path| %(<li><a href="#{path}">#{label}</a></li>) }
    render html: <<~HTML.html_safe
      <!doctype html>
      <html><head><title>Kanban</title><link rel="icon" href="/favicon.ico"></head>
      <body><h1>Kanban</h1><ul>#{items.join}</ul>
      <p><a href="/up">Status</a></p></body></html>
    HTML
  end
end
