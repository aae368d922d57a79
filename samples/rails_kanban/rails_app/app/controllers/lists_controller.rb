class ListsController < ApplicationController
  crud List, permit: %i[board_id title position], filters: %i[board_id]
end
