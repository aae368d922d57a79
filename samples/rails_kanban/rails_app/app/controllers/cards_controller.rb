class CardsController < ApplicationController
  crud Card,
       permit: [:list_id, :title, :priority, :due, :done, { tag_ids: [] }],
       filters: %i[list_id priority done due],
       preload: [:tags]
end
