class TagsController < ApplicationController
  crud Tag, permit: %i[name], filters: %i[name]
end
