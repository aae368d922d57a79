class LabelsController < ApplicationController
  crud Label, permit: %i[name], filters: %i[name]
end
