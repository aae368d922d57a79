# Rendered the way Rails apps often render a belongs_to: the associated record nested as
# {id, name} and its foreign key left out, while writes take the column `severity_id`.
class Issue < ApplicationRecord
  belongs_to :severity

  validates :title, presence: true, length: { maximum: 200 }

  def as_json(options = nil)
    super({ except: [:severity_id], include: { severity: { only: %i[id name] } } }
      .merge(options || {}))
  end
end
