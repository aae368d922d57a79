# Labels issues carry in a list, rendered nested: "labels": [{"id": 1, "name": "bug"}].
class Label < ApplicationRecord
  has_many :issue_labels, dependent: :destroy
  has_many :issues, through: :issue_labels

  validates :name, presence: true, uniqueness: true, length: { maximum: 40 }
end
