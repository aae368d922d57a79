# A lookup table that issues render nested: {"severity": {"id": 3, "name": "high"}}.
class Severity < ApplicationRecord
  has_many :issues, dependent: :restrict_with_error

  validates :name, presence: true, uniqueness: true, length: { maximum: 40 }
end
