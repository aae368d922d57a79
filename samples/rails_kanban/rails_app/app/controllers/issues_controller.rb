class IssuesController < ApplicationController
  crud Issue, permit: %i[title severity_id done], filters: %i[severity_id done], preload: [:severity]
end
