class ApplicationController < ActionController::API
  include ActionController::HttpAuthentication::Token::ControllerMethods
  # respond_to: index pages render HTML for browsers and JSON otherwise.
  include ActionController::MimeResponds
  include CrudActions

  before_action :authenticate

  rescue_from ActiveRecord::RecordNotFound do |error|
    render json: { error: error.message }, status: :not_found
  end

  rescue_from ActionController::ParameterMissing do |error|
    render json: { error: "param is missing or the value is empty: #{error.param}" }, status: 400
  end

  private

  # Authorization: Token <token> (or Bearer <token>); the token comes from the launcher.
  def authenticate
    authenticate_or_request_with_http_token do |token, _options|
      ActiveSupport::SecurityUtils.secure_compare(token, ENV.fetch("KANBAN_RAILS_TOKEN"))
    end
  end
end
