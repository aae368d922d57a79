# A record addressed by a slug the client chooses on create (`to_param`); the integer
# primary key is never shown, so the slug is the only id an API client sees.
class Project < ApplicationRecord
  validates :slug, presence: true, uniqueness: true, length: { maximum: 60 },
                   format: { with: /\A[a-z0-9][a-z0-9-]*\z/ }
  validates :name, presence: true, length: { maximum: 120 }

  def to_param
    slug
  end

  def as_json(options = nil)
    super({ except: [:id] }.merge(options || {}))
  end
end
