ActiveRecord::Schema.define(version: 1) do
  create_table :boards do |t|
    t.string :name, null: false
    t.boolean :archived, null: false, default: false
    t.timestamps
  end

  create_table :lists do |t|
    t.references :board, null: false, foreign_key: true
    t.string :title, null: false
    t.float :position, null: false, default: 0
    t.timestamps
  end

  create_table :tags do |t|
    t.string :name, null: false, index: { unique: true }
    t.timestamps
  end

  create_table :cards do |t|
    t.references :list, null: false, foreign_key: true
    t.string :title, null: false
    t.string :priority, null: false, default: "none"
    t.date :due
    t.boolean :done, null: false, default: false
    t.timestamps
  end

  create_table :card_tags do |t|
    t.references :card, null: false, foreign_key: true
    t.references :tag, null: false, foreign_key: true
    t.index %i[card_id tag_id], unique: true
  end
end
