class IssuesController < ApplicationController
  crud Issue, permit: [:title, :severity_id, :done, { label_ids: [] }],
              filters: %i[severity_id done], preload: %i[severity labels]
end
