class BoardsController < ApplicationController
  crud Board, permit: %i[name archived], filters: %i[archived]
end
