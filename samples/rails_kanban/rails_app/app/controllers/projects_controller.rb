class ProjectsController < ApplicationController
  crud Project, permit: %i[slug name], filters: %i[name]

  private

  # Addressed by slug (`Project#to_param`), not by the hidden primary key.
  def find_record
    crud_model.find_by!(slug: params[:id])
  end
end
