require_relative "boot"

require "rails"
require "active_model/railtie"
require "active_record/railtie"
require "action_controller/railtie"
require "kaminari"

module KanbanApi
  class Application < Rails::Application
    config.load_defaults "#{Rails::VERSION::MAJOR}.#{Rails::VERSION::MINOR}"
    config.api_only = true
    config.eager_load = true
    config.consider_all_requests_local = false
    config.time_zone = "UTC"
    config.logger = ActiveSupport::Logger.new($stderr)
    config.log_level = ENV.fetch("RAILS_LOG_LEVEL", "warn").to_sym
  end
end
