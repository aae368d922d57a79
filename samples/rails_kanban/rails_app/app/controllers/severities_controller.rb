class SeveritiesController < ApplicationController
  crud Severity, permit: %i[name], filters: %i[name]

  # A severity still named by issues is kept (`restrict_with_error`): 422 with the reason.
  rescue_from ActiveRecord::RecordNotDestroyed do |error|
    render json: error.record.errors, status: 422
  end
end
