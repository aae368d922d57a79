class SeveritiesController < ApplicationController
  crud Severity, permit: %i[name], filters: %i[name]
end
