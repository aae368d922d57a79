# Rendered the way Rails apps often render associations: the belongs_to record nested as
# {id, name} and its foreign key left out, while writes take the column `severity_id`; the
# has_many labels as a list of {id, name}, written through `label_ids`.
class Issue < ApplicationRecord
  belongs_to :severity
  has_many :issue_labels, dependent: :destroy
  has_many :labels, through: :issue_labels

  validates :title, presence: true, length: { maximum: 200 }

  def as_json(options = nil)
    super({ except: [:severity_id],
            include: { severity: { only: %i[id name] }, labels: { only: %i[id name] } } }
      .merge(options || {}))
  end
end
