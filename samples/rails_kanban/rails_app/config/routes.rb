Rails.application.routes.draw do
  get "up", to: proc { [200, { "content-type" => "text/plain" }, ["ok"]] }
  # An HTML home page linking the collections, as a Rails product's front page does.
  root "home#index"

  scope "api" do
    resources :boards, :lists, :cards, :tags, except: %i[new edit]
    resources :severities, :issues, :projects, :labels, except: %i[new edit]
  end
end
