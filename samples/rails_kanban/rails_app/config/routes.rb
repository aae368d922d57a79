Rails.application.routes.draw do
  get "up", to: proc { [200, { "content-type" => "text/plain" }, ["ok"]] }

  scope "api" do
    resources :boards, :lists, :cards, :tags, except: %i[new edit]
    resources :severities, :issues, :projects, :labels, except: %i[new edit]
  end
end
